package generate

import "strings"

// Word lists for the named generators of patterns and the defaults by column name: enough
// variety to look real in a sample of rows and for names not to repeat where real ones
// rarely do, small enough to live in the binary. Only ASCII, so that a value's length in
// characters is its length in bytes. Written for quadrant (common given names and surnames
// of many countries, and plain English words: facts, not anyone's list); a surname is one
// of the written ones or an English place-name surname made of two parts (Ash + ford), as
// many are. 331 first names times 1,077 last names: 10,000 people get 98.4% distinct
// full names (TestNameLists checks at least 95%).
var (
	firstNames = splitWords(`
Emma Noah Olivia Liam Ava Lucas Mia Ethan Sofia Mateo Amelia Leo Chloe Oliver Isla Hugo Grace Arthur Zoe Louis
Nora Jack Alice Henry Lea Adam Clara Samuel Anna David Maria Daniel Laura Thomas Julia Gabriel Sarah Elias Emily Jonas
Hannah Ali Fatima Yuki Wei Priya Arjun Kofi Amara Ines James Mary Robert Patricia John Jennifer Michael Linda William Elizabeth
Richard Barbara Joseph Susan Charles Jessica Christopher Karen Matthew Nancy Anthony Lisa Mark Betty Donald Sandra Steven Ashley
Paul Kimberly Andrew Donna Joshua Michelle Kenneth Carol Kevin Amanda Brian Melissa George Deborah Timothy Stephanie Ronald Rebecca
Jason Sharon Edward Cynthia Jeffrey Kathleen Ryan Amy Jacob Angela Gary Shirley Nicholas Brenda Eric Pamela Jonathan Nicole Stephen
Katherine Larry Virginia Justin Rachel Scott Janet Brandon Heather Benjamin Diane Frank Ruth Gregory Julie Raymond Joyce Alexander
Victoria Patrick Kelly Owen Christina Dennis Joan Jerry Evelyn Tyler Judith Aaron Megan Jose Andrea Nathan Cheryl Douglas Jacqueline
Zachary Martha Peter Madison Kyle Teresa Walter Gloria Harold Sara Jeremy Janice Carl Ann Keith Kathryn Roger Abigail Gerald Sophia
Christian Frances Terry Jean Sean Alexis Austin Marie Jesse Judy Dylan Theresa Bruce Beverly Bryan Denise Billy Marilyn Ralph Danielle
Gabriela Roy Isabella Eugene Diana Isaac Natalie Wayne Brittany Alan Charlotte Juan Rose Vincent Kayla Russell Alexandra Bobby Lauren
Philip Olga Johnny Irina Logan Elena Ahmed Aisha Omar Layla Yusuf Mariam Hassan Zainab Ibrahim Leila Mehmet Elif Emre Zeynep
Hiroshi Sakura Kenji Haruto Aiko Ren Min Jun Seo Ji Hao Mei Chen Lin Ming Xiu Ravi Anil Sunita Deepa
Vikram Kavya Rohan Neha Amit Pooja Chidi Ngozi Kwame Abena Tunde Ayo Zola Thabo Sipho Lerato Pablo Lucia Diego Carmen
Javier Rosa Miguel Lorena Carlos Paula Andres Camila Felipe Valentina Rafael Beatriz Tiago Joana Pedro Marta Giulia Marco Francesca Luca
Matteo Chiara Pierre Camille Antoine Manon Julien Elise Lars Ingrid Sven Astrid Nils Freya Piotr Agnieszka Tomasz Katarzyna Jan Eva
Dmitri Anastasia Sergei Natalia Mikhail Tatiana Niamh Declan Aoife Ciaran Siobhan Eoin Rhys Cerys Dafydd Angus Morag Ewan Fiona Hamish`)

	lastNames = append(splitWords(`
Smith Johnson Garcia Brown Martin Miller Davis Lopez Wilson Anderson Taylor Thomas Moore Jackson Lee Perez White Harris Clark Lewis
Robinson Walker Young King Wright Scott Green Baker Adams Nelson Muller Schmidt Schneider Fischer Weber Rossi Russo Bianchi Dubois Bernard
Nguyen Tran Kim Park Tanaka Suzuki Singh Kumar Silva Santos Williams Jones Rodriguez Martinez Hernandez Gonzalez Sanchez Ramirez Torres Flores
Rivera Gomez Diaz Cruz Reyes Morales Ortiz Gutierrez Chavez Ramos Ruiz Alvarez Mendoza Castillo Jimenez Vasquez Romero Herrera Medina Aguilar
Hill Campbell Mitchell Roberts Carter Phillips Evans Turner Parker Collins Edwards Stewart Morris Murphy Cook Rogers Morgan Peterson Cooper Reed
Bailey Bell Kelly Howard Ward Cox Richardson Wood Watson Brooks Bennett Gray James Hughes Price Sanders Myers Long Ross Foster
Powell Jenkins Perry Russell Sullivan Butler Barnes Fisher Henderson Coleman Simmons Patterson Jordan Reynolds Hamilton Graham Wallace West Cole Hayes
Gibson Bryant Ellis Stevens Murray Ford Marshall Owens Harrison Kennedy Wells Alexander Griffin Hunt Palmer Black Daniels Webb Mills
Wagner Becker Hoffmann Schulz Koch Richter Klein Wolf Neumann Schwarz Zimmermann Braun Hofmann Hartmann Lange Werner Krause Meier Lehmann Kaiser
Ferrari Esposito Romano Colombo Ricci Marino Greco Bruno Gallo Conti Costa Giordano Mancini Rizzo Lombardi Moretti Barbieri Fontana Caruso
Moreau Laurent Simon Michel Lefebvre Leroy Roux David Bertrand Morel Fournier Girard Bonnet Dupont Lambert Fontaine Rousseau Vincent Blanc Guerin
Kowalski Nowak Wisniewski Wojcik Kaminski Lewandowski Zielinski Szymanski Ivanov Petrov Smirnov Popov Volkov Sokolov Novak Horvat Kovac Jansen Visser Bakker
Janssen Mulder Bos Peeters Maes Hansen Nielsen Jensen Pedersen Andersen Larsen Johansson Karlsson Nilsson Eriksson Lindberg Berg Virtanen Korhonen
Yamamoto Watanabe Ito Nakamura Kobayashi Kato Yoshida Yamada Sasaki Matsumoto Wang Zhang Liu Chen Yang Huang Zhao Zhou Wu Xu
Sun Ma Zhu Hu Guo Lin He Gao Luo Zheng Choi Jung Kang Cho Yoon Jang Lim Han Shin Oh
Patel Shah Gupta Sharma Verma Reddy Rao Nair Iyer Mehta Das Bose Khan Ahmed Ali Hussain Rahman Chowdhury Malik Qureshi
Okafor Okeke Adeyemi Mensah Owusu Boateng Kamau Otieno Mwangi Ndlovu Dlamini Nkosi Mokoena Haddad Khoury Nasser Aziz Yilmaz Kaya Demir
Sahin Celik Ozturk Aydin Arslan Dogan Kilic Cohen Levi Mizrahi Friedman Katz Papadopoulos Georgiou Nikolaidis Pereira Ferreira Oliveira Almeida Ribeiro`),
		compoundSurnames()...)

	cities = splitWords(`London Paris Berlin Madrid Rome Lisbon Dublin Vienna Prague Warsaw Amsterdam Brussels Copenhagen Stockholm Oslo Helsinki Athens
Budapest Zurich Milan New_York Chicago Toronto Boston Seattle Denver Austin Mexico_City Sao_Paulo Buenos_Aires Tokyo Osaka Seoul Beijing Shanghai
Singapore Mumbai Delhi Sydney Melbourne Cairo Lagos Nairobi Cape_Town Istanbul Dubai Bangkok Jakarta Manila Auckland`)
	countries = splitWords(`United_Kingdom France Germany Spain Italy Portugal Ireland Austria Poland Netherlands Belgium Denmark Sweden Norway Finland
Greece Hungary Switzerland United_States Canada Mexico Brazil Argentina Chile Japan South_Korea China Singapore India Australia New_Zealand Egypt
Nigeria Kenya South_Africa Turkey Thailand Indonesia Philippines Vietnam`)
	streets     = splitWords(`Oak Maple Cedar Pine Elm Main High Church Park Station Mill Bridge Victoria King Queen Market Garden River Lake Hill`)
	streetKinds = splitWords(`Street Road Avenue Lane Way Drive`)

	// nouns and adjectives make words, categories and titles
	nouns = splitWords(`apple river stone light cloud paper garden silver window market bridge forest engine harbor letter mirror planet signal summer winter
orange pocket rocket castle meadow island candle ticket button basket table chair house story music dream ocean tiger falcon copper
anchor arrow autumn badge banner barrel beacon berry blade blossom border bottle branch breeze brick bubble cabin canyon canvas carpet
cedar chapel cherry circle cliff clock comet compass coral cottage crown crystal dawn desert diamond dolphin dragon eagle echo ember
feather fern field flame flower fountain fox frost galaxy gate glacier glove harvest hawk heart hill horizon hunter jewel journey jungle
kettle key kingdom ladder lagoon lantern leaf legend lemon lily lion machine maple marble mango melody moon mountain needle nest night
oak orbit orchard owl palace parade pearl pebble pepper piano pillar pilot pine pirate puzzle quarry rain raven reef ribbon ridge road
robin rose saddle sail salt sand scarf shadow shell shore sky snow sparrow spice spring star storm stream sugar sun sunset swan sword
temple thunder timber tower trail treasure valley velvet village violet voyage wave whale whistle willow wind wolf wonder`)
	adjectives = splitWords(`blue green quick quiet bright simple golden little open fresh ancient bold brave broken calm clever crimson dark deep distant
eager early electric empty endless final first frozen gentle giant grand hidden hollow honest hungry icy last lazy lone lost lucky mad
midnight mighty misty modern narrow noble northern odd old pale perfect proud purple rapid rare red restless rising royal rusty sacred
secret silent sleeping slow small smooth soft southern stolen strange sudden sweet swift tall tender thin tiny true twin velvet wild
wandering warm western white wicked wise wooden young`)
	words   = append(append([]string(nil), nouns...), adjectives...)
	domains = []string{"example.com", "example.org", "example.net"}
)

// splitWords reads a list written one word a blank apart; _ stands for a space.
func splitWords(s string) []string {
	f := strings.Fields(s)
	for i, w := range f {
		f[i] = strings.ReplaceAll(w, "_", " ")
	}
	return f
}

// compoundSurnames are English place-name surnames: a first part and an ending, as
// Ashford, Blackwood, Whitley are made.
func compoundSurnames() []string {
	starts := splitWords(`Ash Black Brook Brad Bran Burn Cald Carl Cole Cran Dun Elm Fair Fen Gold Green Hart Hay Hol Kings Lang Lyn Marsh Mid
Mor North Oak Red Rock Stan Thorn Wal Wes Whit Win Wood`)
	ends := splitWords(`ford ton ley wood field well more by ham worth wick stead combe brook dale land ridge bury croft hurst`)
	out := make([]string, 0, len(starts)*len(ends))
	for _, s := range starts {
		for _, e := range ends {
			out = append(out, s+e)
		}
	}
	return out
}

func longest(list []string) int {
	n := 0
	for _, s := range list {
		n = max(n, len(s))
	}
	return n
}
